import { render } from 'preact';
import { App } from './shell/app.js';
import './styles.css';

render(<App />, document.getElementById('app')!);
